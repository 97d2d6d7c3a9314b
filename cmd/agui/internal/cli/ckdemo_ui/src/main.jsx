import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { CopilotKitProvider, CopilotChat, useInterrupt } from "@copilotkit/react-core/v2";
import "@copilotkit/react-core/v2/styles.css";
import "./page.css";

// The runtime is agui/copilotkit, mounted beside this page by
// `agui demo --copilotkit`; the agent is the Go demo agent.
const RUNTIME = "api/copilotkit";
const AGENT = "demo";

// The thread lives in the address (?thread=ID), so that a reload connects to
// the same thread and the runtime answers its history (and its live run).
function threadId() {
  const params = new URLSearchParams(window.location.search);
  let id = params.get("thread");
  if (!id) {
    id = window.crypto?.randomUUID?.() ?? `t-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
    params.set("thread", id);
    window.history.replaceState(null, "", `${window.location.pathname}?${params}`);
  }
  return id;
}

// ?transport=single makes the client speak the runtime's single-route form
// (one POST with a {method, params, body} envelope), ?transport=rest the
// multi-route form; without it the client picks ("auto": it asks GET
// {runtime}/info and settles on the multi-route form when that answers).
function transport() {
  const t = new URLSearchParams(window.location.search).get("transport");
  return t === "single" ? true : t === "rest" ? false : undefined;
}

// Approval answers the agent's interrupts in the chat: the demo agent asks
// before it books a table (try "book a table, interrupt for approval").
// Approve resumes the run with the interrupt resolved, Decline with it
// cancelled; CopilotKit sends the answers as the next run's resume.
function Approval() {
  useInterrupt({
    agentId: AGENT,
    render: ({ interrupt, resolve, cancel }) => (
      <div className="interrupt" data-testid="agui-interrupt">
        <p>{interrupt?.message ?? "The agent asks for your approval."}</p>
        <button type="button" data-testid="agui-approve" onClick={() => resolve({ approved: true })}>
          Approve
        </button>
        <button type="button" data-testid="agui-decline" onClick={() => cancel()}>
          Decline
        </button>
      </div>
    ),
  });
  return null;
}

function App() {
  const thread = threadId();
  return (
    <CopilotKitProvider
      runtimeUrl={new URL(RUNTIME, window.location.href).pathname}
      useSingleEndpoint={transport()}
      enableInspector={false}
    >
      <div className="page">
        <header>
          <h1>CopilotKit → Go</h1>
          <p>
            CopilotKit's React chat talking to the Go demo agent through agui/copilotkit, with no Node
            runtime in between. Try <code>hello</code>, <code>weather in Paris?</code>, or{" "}
            <code>slow</code> and press stop, or <code>interrupt for approval</code> and answer it. Reload: the thread (<code>{thread}</code>) comes back.{" "}
            <a href="./">New thread</a>
          </p>
        </header>
        <main>
          <Approval />
          <CopilotChat agentId={AGENT} threadId={thread} />
        </main>
      </div>
    </CopilotKitProvider>
  );
}

createRoot(document.getElementById("root")).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
