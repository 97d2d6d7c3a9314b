package runlog

import (
	"encoding/json"

	"github.com/agui-go/sdk/agui"
)

// CodeRunLost is the RUN_ERROR code a log appends for a run whose owner went
// away without ending it, so that every log ends with one terminal event.
const CodeRunLost = string(agui.CodeRunLost)

// CodeRunLogUnavailable is the RUN_ERROR code of a run stopped because its
// log stayed unreachable for longer than the run waits for it, and of a
// reader's stream that stopped following a run for the same reason.
const CodeRunLogUnavailable = string(agui.CodeRunLogUnavailable)

// LostEvent is the encoded RUN_ERROR that ends a lost run.
func LostEvent(message string) []byte { return ErrorEvent(CodeRunLost, message) }

// ErrorEvent is the encoded RUN_ERROR with code and message, as a log
// appends it to end a run its owner could not end.
func ErrorEvent(code, message string) []byte {
	data, _ := json.Marshal(struct {
		Type    string `json:"type"`
		Message string `json:"message"`
		Code    string `json:"code"`
	}{"RUN_ERROR", message, code})
	return data
}
