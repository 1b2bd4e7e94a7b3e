// The report runtime: the script inlined in every report file. It reads the data the writer
// embedded (<script type="application/json" id="data">) and renders the report into <main>.
import { render } from './render.js';

const data = JSON.parse(document.getElementById('data').textContent);
window.__flopcastReport = render(data, document.getElementById('report'));
