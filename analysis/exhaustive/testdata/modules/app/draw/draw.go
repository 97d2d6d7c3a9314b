// Package draw consumes a sealed interface and an enum declared in another
// module.
package draw

import "example.net/shapes"

func Area(s shapes.Shape) {
	switch s.(type) { // want `^missing cases in switch of type shapes\.Shape: \*shapes\.Square, \*shapes\.Triangle$`
	case *shapes.Circle:
	}
	switch s.(type) {
	case *shapes.Circle, *shapes.Square, *shapes.Triangle:
	}
}

func Paint(c shapes.Color) {
	switch c { // want `^missing cases in switch of type shapes\.Color: shapes\.Green$`
	case shapes.Red, 3:
	}
}
