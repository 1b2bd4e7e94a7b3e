# libFuzzer targets (tests/fuzz/*.cpp), included by CMakeLists.txt with -DFLOPCAST_FUZZ=ON.
# Clang only. scripts/build-san.sh configures build-san/ with it and the sanitizers, where the
# Catch2 suite under ASan+UBSan (scripts/sanitize.sh) links the same core library:
#   bash scripts/build-san.sh flopcast_fuzz
# The core library is compiled with the sanitizers and libFuzzer's coverage instrumentation
# (-fsanitize=fuzzer-no-link); each target links libFuzzer's main. Only the targets of the
# flopcast_fuzz group need building: the CLI and the measurement library are left alone.
if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  message(WARNING "FLOPCAST_FUZZ needs clang (CXX=clang++); got ${CMAKE_CXX_COMPILER_ID}: no fuzz targets")
  return()
endif()

set(FLOPCAST_SANITIZERS -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
target_compile_options(flopcast_core PRIVATE ${FLOPCAST_SANITIZERS} -fsanitize=fuzzer-no-link)
target_link_options(flopcast_core INTERFACE -fsanitize=address,undefined)

file(GLOB FLOPCAST_FUZZ_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/tests/fuzz/fuzz_*.cpp)
list(SORT FLOPCAST_FUZZ_SOURCES)
add_custom_target(flopcast_fuzz)
foreach(src ${FLOPCAST_FUZZ_SOURCES})
  get_filename_component(name ${src} NAME_WE)
  add_executable(${name} ${src})
  target_link_libraries(${name} PRIVATE flopcast_core flopcast_json)
  target_compile_options(${name} PRIVATE ${FLOPCAST_WARNINGS} ${FLOPCAST_SANITIZERS} -fsanitize=fuzzer)
  target_link_options(${name} PRIVATE -fsanitize=fuzzer,address,undefined)
  set_target_properties(${name} PROPERTIES EXCLUDE_FROM_ALL ON RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/fuzz)
  add_dependencies(flopcast_fuzz ${name})
endforeach()
