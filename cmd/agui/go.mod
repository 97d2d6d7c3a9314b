module github.com/agui-go/sdk/cmd/agui

go 1.26.0

replace (
	github.com/agui-go/sdk => ../..
	github.com/agui-go/sdk/runlog/nats => ../../runlog/nats
)

require (
	github.com/agui-go/sdk v0.0.0-00010101000000-000000000000
	go.uber.org/goleak v1.3.0
	golang.org/x/tools v0.52.0
)

require google.golang.org/protobuf v1.36.12 // indirect
