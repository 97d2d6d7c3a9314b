package client

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
)

// maxErrorBody bounds how much of a non-2xx body is read: enough for any
// error document, not enough for a hostile server to exhaust memory.
const maxErrorBody = 64 << 10

func readHTTPError(resp *http.Response, ct string) *HTTPError {
	e := &HTTPError{Status: resp.StatusCode, ContentType: ct}
	e.Body, _ = io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	if strings.Contains(ct, "application/json") {
		var doc struct {
			Error struct {
				Code    string `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(e.Body, &doc) == nil {
			e.Code, e.Message = doc.Error.Code, doc.Error.Message
		}
	}
	return e
}
