// Writes dist/flopcast-widget.js, the widget's one script tag: web/src/widget-loader.js as it
// stands (no bundling, so no static import a failed request could break), with the path of the
// built widget chunk (the `widget` entry, web/src/widget.js) in its WIDGET constant.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

const SOURCE = resolve(import.meta.dirname, 'src/widget-loader.js');
const PLACEHOLDER = "const WIDGET = './widget.js';";

export function widgetLoaderPlugin({ entry = 'widget', fileName = 'flopcast-widget.js' } = {}) {
  return {
    name: 'flopcast-widget-loader',
    apply: 'build',
    generateBundle(_options, bundle) {
      const chunk = Object.values(bundle).find((c) => c.type === 'chunk' && c.isEntry && c.name === entry);
      if (!chunk) this.error(`no entry chunk named ${entry}`);
      const source = readFileSync(SOURCE, 'utf8');
      if (!source.includes(PLACEHOLDER)) this.error(`${SOURCE} lacks ${PLACEHOLDER}`);
      this.emitFile({
        type: 'asset',
        fileName,
        source: source.replace(PLACEHOLDER, `const WIDGET = ${JSON.stringify(`./${chunk.fileName}`)};`),
      });
    },
  };
}
