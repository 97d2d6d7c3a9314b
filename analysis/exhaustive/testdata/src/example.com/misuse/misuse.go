package misuse

//agui:sealed
type NotAnInterface struct{} // want `^//agui:sealed applies only to non-generic interface types$`

//agui:sealed
type Generic[T any] interface{ get() T } // want `^//agui:sealed applies only to non-generic interface types$`

//agui:enum
type NotBasic struct{} // want `^//agui:enum applies only to defined types with a basic underlying type$`

//agui:enum
type Alias = int // want `^//agui:enum applies only to defined types with a basic underlying type$`

//agui:enum
type Empty string // want Empty:`^enum\(\)$`

//agui:sealed
type NoVariants interface{ none() } // want NoVariants:`^sealed\(\)$`

// Text in the doc comment mentioning agui:sealed is not a directive, and
// neither is //agui:sealedish.
//
//agui:sealedish
type Plain interface{ plain() }

func use(e Empty, n NoVariants) {
	switch e {
	}
	switch n.(type) {
	}
}
