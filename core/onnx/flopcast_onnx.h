#pragma once
// The one entry point of libflopcast_onnx (core/onnx/onnx_graph.cpp), loaded with dlopen.
#ifdef __cplusplus
extern "C" {
#endif
// The neutral graph JSON of the .onnx file at `path` (*ok = 1), or an error text: *ok = -1 when
// the file breaks a limit of flopcast/profile/limits.hpp (checked right after decoding), else 0.
// Runs ONNX shape inference when the file stores no value_info. Free the text with
// flopcast_onnx_free.
char* flopcast_onnx_graph_json(const char* path, int* ok);
void flopcast_onnx_free(char* text);
#ifdef __cplusplus
}
#endif
