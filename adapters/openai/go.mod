module github.com/agui-go/sdk/adapters/openai

go 1.26.0

require (
	github.com/agui-go/sdk v0.0.0-00010101000000-000000000000
	github.com/openai/openai-go/v3 v3.99.0
	go.uber.org/goleak v1.3.0
)

replace github.com/agui-go/sdk => ../..

require (
	github.com/coder/websocket v1.8.15 // indirect
	github.com/tidwall/gjson v1.20.0 // indirect
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.2.1 // indirect
	github.com/tidwall/sjson v1.2.5 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
)
