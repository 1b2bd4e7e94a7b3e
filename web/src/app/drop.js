// A drop zone: highlights while a file is dragged over it and hands the first dropped file on.
export function onFileDrop(zone, handle) {
  zone.addEventListener('dragover', (e) => {
    e.preventDefault();
    zone.classList.add('over');
  });
  zone.addEventListener('dragleave', () => zone.classList.remove('over'));
  zone.addEventListener('drop', (e) => {
    e.preventDefault();
    zone.classList.remove('over');
    handle(e.dataTransfer?.files?.[0]);
  });
}

// An ONNX graph (profiled by the lazily loaded profile-panel.js) rather than a checkpoint.
export const isOnnx = (file) => /\.onnx$/i.test(file?.name ?? '');
