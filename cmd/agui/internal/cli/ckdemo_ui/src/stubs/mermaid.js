// Stands in for mermaid (about 3 MB with its diagram chunks), which
// CopilotKit's markdown renderer (streamdown) loads for a ```mermaid block:
// the demo agent sends none, and the page is embedded in the agui binary,
// so a diagram is shown as a note instead.
const note = (text) =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="360" height="24"><text x="0" y="16" font-family="monospace" font-size="12">${text}</text></svg>`;

export default {
  initialize() {},
  async render() {
    return { svg: note("(diagrams are not rendered in this demo page)") };
  },
};
