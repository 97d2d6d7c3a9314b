// Package fixlocal declares a sealed interface and an enum, each with an
// unexported variant or member, and switches over them in the same package,
// where the fix names cases without a qualifier.
package fixlocal

// Shape is closed.
//
//agui:sealed
type Shape interface{ isShape() } // want Shape:`^sealed\(\*Circle, Square, \*hidden\)$`

type Circle struct{}

type Square struct{}

type hidden struct{}

func (*Circle) isShape() {}
func (Square) isShape()  {}
func (*hidden) isShape() {}

// Level is closed.
//
//agui:enum
type Level int // want Level:`^enum\(LevelLow, LevelHigh, levelSecret\)$`

const (
	LevelLow Level = iota
	LevelHigh
	levelSecret
)

func area(s Shape) int {
	switch s.(type) { // want `^missing cases in switch of type fixlocal\.Shape: fixlocal\.Square, \*fixlocal\.hidden$`
	case *Circle:
		return 1
	}
	return 0
}

func loud(l Level) bool {
	switch l { // want `^missing cases in switch of type fixlocal\.Level: fixlocal\.levelSecret$`
	case LevelLow, LevelHigh:
		return false
	}
	return true
}
