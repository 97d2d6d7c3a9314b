package runlog

import (
	"encoding/json"

	"github.com/agui-go/sdk/agui"
)

// CodeRunLost is the RUN_ERROR code a log appends for a run whose owner went
// away without ending it, so that every log ends with one terminal event.
const CodeRunLost = string(agui.CodeRunLost)

// LostEvent is the encoded RUN_ERROR that ends a lost run.
func LostEvent(message string) []byte {
	data, _ := json.Marshal(struct {
		Type    string `json:"type"`
		Message string `json:"message"`
		Code    string `json:"code"`
	}{"RUN_ERROR", message, CodeRunLost})
	return data
}
