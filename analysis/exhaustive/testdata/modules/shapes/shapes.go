// Package shapes declares a sealed interface and an enum in a module of its
// own.
package shapes

// Shape is closed.
//
//agui:sealed
type Shape interface{ isShape() }

type Circle struct{}
type Square struct{}
type Triangle struct{}

func (*Circle) isShape()   {}
func (*Square) isShape()   {}
func (*Triangle) isShape() {}

// Color is closed.
//
//agui:enum
type Color uint8

const (
	Red Color = iota + 1
	Green
	Blue
)
