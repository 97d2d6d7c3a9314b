// Stands in for shiki (about 10 MB of grammars and themes), which
// CopilotKit's markdown renderer (streamdown) loads to colour code blocks:
// the page is embedded in the agui binary, so code is shown as plain text.
export const bundledLanguages = {};

export async function createHighlighter() {
  return {
    getLoadedLanguages: () => ["text"],
    codeToTokens: (code) => ({
      tokens: code.split("\n").map((line) => [{ content: line }]),
      bg: "",
      fg: "",
    }),
  };
}

export function createJavaScriptRegexEngine() {
  return {};
}
