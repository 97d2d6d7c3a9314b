module github.com/agui-go/sdk/gen

go 1.26.0

require (
	github.com/agui-go/sdk v0.0.0
	github.com/dave/jennifer v1.7.1
	github.com/santhosh-tekuri/jsonschema/v5 v5.3.1
	golang.org/x/tools v0.52.0
)

require google.golang.org/protobuf v1.36.12 // indirect

replace github.com/agui-go/sdk => ..
