package agui

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// This file holds the generic helpers that carry the generated decoder's cold
// paths, so that decode_gen.go is mostly the per-member switches: finding a
// union's discriminator, naming a missing member, reading lists, the reasons
// the generated decoder fails with, and the readers of optional members.

// decodable is what every generated struct implements.
type decodable interface {
	decodeJSON(d *decoder) error
}

// discriminator returns the value of the member name (a union's "type",
// "role" or "op") of the object at the cursor, without consuming anything.
// The bytes are valid until the decoder reads on: enough for a switch, and
// no allocation per union value.
func (d *decoder) discriminator(name string) ([]byte, error) {
	if d.peekKind() != '{' {
		return nil, d.beginObject() // fails, naming what is there instead
	}
	disc, found, err := d.findBytes(name, false)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, d.missing(name)
	}
	return disc, nil
}

// decodeUnion reads one value of a union whose variants pick returns by
// discriminator (nil for an unknown one). It looks only at the first
// occurrence of the discriminator; when that does not work out (unknown, or
// the variant fails to decode), it checks the cold case of a later
// occurrence, which JSON.parse would keep, and decodes that variant instead.
// An unknown discriminator is an *UnknownEventTypeError for events and
// dropped (lenient) or rejected (strict) for other unions.
func decodeUnion[V decodable](d *decoder, name string, pick func([]byte) V, event bool) (V, error) {
	var zero V
	disc, err := d.discriminator(name)
	if err != nil {
		return zero, err
	}
	at := d.save()
	v := pick(disc)
	if any(v) != nil {
		if err = v.decodeJSON(d); err == nil {
			return v, nil
		}
	}
	failed := d.save() // past the value when a lenient decode dropped it
	d.restore(at)
	first, _, _ := d.findBytes(name, false)
	firstName := string(first)
	if last, _, lerr := d.findBytes(name, true); lerr == nil && string(last) != firstName {
		if v := pick(last); any(v) != nil {
			if err := v.decodeJSON(d); err != nil {
				return zero, err
			}
			return v, nil
		}
		firstName = string(last)
	} else if err != nil {
		d.restore(failed)
		return zero, err // the variant's own failure
	}
	if event {
		return zero, &UnknownEventTypeError{Type: firstName}
	}
	return zero, d.dropped(name + " " + strconv.Quote(firstName))
}

// missingOf reports the first required member whose bit is clear in seen;
// names lists the required members in bit order. Called after the object
// closed, only when a bit is clear.
func (d *decoder) missingOf(seen uint64, names ...string) error {
	for i, name := range names {
		if seen&(1<<i) == 0 {
			return d.missing(name)
		}
	}
	return nil
}

// decodeStringList reads a JSON array of strings; an empty array gives a
// non-nil empty slice.
func decodeStringList(d *decoder) ([]string, error) {
	if err := d.beginArray(); err != nil {
		return nil, err
	}
	out := []string{}
	for i := 0; ; i++ {
		more, err := d.elem(i)
		if err != nil {
			return nil, err
		}
		if !more {
			return out, nil
		}
		d.pushIndex(i)
		x, err := d.str()
		if err != nil {
			return nil, err
		}
		out = append(out, x)
		d.pop()
	}
}

// decodeStructList reads a JSON array of objects of one generated struct
// type. In lenient mode an element that lost a member it cannot do without
// is dropped (and reported) rather than failing the list.
func decodeStructList[T any, P interface {
	*T
	decodable
}](d *decoder) ([]T, error) {
	if err := d.beginArray(); err != nil {
		return nil, err
	}
	out := []T{}
	for i := 0; ; i++ {
		more, err := d.elem(i)
		if err != nil {
			return nil, err
		}
		if !more {
			return out, nil
		}
		d.pushIndex(i)
		// Decode in place: a local would escape through the generic call
		// and cost an allocation per element.
		var zero T
		out = append(out, zero)
		switch err := P(&out[len(out)-1]).decodeJSON(d); err {
		case nil:
		case errDropped:
			out = out[:len(out)-1]
		default:
			return nil, err
		}
		d.pop()
	}
}

// decodeUnionList reads a JSON array of union values with decode. In lenient
// mode an unrecognised element is dropped (and reported) rather than failing
// the list.
func decodeUnionList[U any](d *decoder, decode func(*decoder) (U, error)) ([]U, error) {
	if err := d.beginArray(); err != nil {
		return nil, err
	}
	out := []U{}
	for i := 0; ; i++ {
		more, err := d.elem(i)
		if err != nil {
			return nil, err
		}
		if !more {
			return out, nil
		}
		d.pushIndex(i)
		switch x, err := decode(d); err {
		case nil:
			out = append(out, x)
		case errDropped:
		default:
			return nil, err
		}
		d.pop()
	}
}

// Reasons the generated decoder reports inside a *DecodeError.
const (
	reasonPointer = "not a JSON Pointer (RFC 6901)"
	reasonNull    = "null is not allowed here"
)

func reasonMinItems(n int) string { return "expected at least " + strconv.Itoa(n) + " item(s)" }

func (d *decoder) badEnum(got, allowed string) error {
	return d.fail("unknown value " + strconv.Quote(got) + "; expected one of " + allowed)
}

func errUnknownDefinition(name string) error {
	return fmt.Errorf("agui: no schema definition named %q", name)
}

// Optional members share these readers, so the generated decoders stay one
// line per member: a null is handed to the decoder's null policy, anything
// else is decoded and stored behind a fresh pointer.

func (d *decoder) optString(dst **string, tolerated bool) error {
	if d.isNull() {
		return d.nullOptional(tolerated)
	}
	s, err := d.str()
	if err == nil {
		*dst = &s
	}
	return err
}

func (d *decoder) optInt(dst **int64, min, max int64, tolerated bool) error {
	if d.isNull() {
		return d.nullOptional(tolerated)
	}
	n, err := d.integer(min, max)
	if err == nil {
		*dst = &n
	}
	return err
}

func (d *decoder) optBool(dst **bool, tolerated bool) error {
	if d.isNull() {
		return d.nullOptional(tolerated)
	}
	b, err := d.boolean()
	if err == nil {
		*dst = &b
	}
	return err
}

// optRaw reads an optional member holding any JSON but null; object says
// whether it must be an object.
func (d *decoder) optRaw(dst *json.RawMessage, object, tolerated bool) error {
	if d.isNull() {
		return d.nullOptional(tolerated)
	}
	var raw []byte
	var err error
	if object {
		raw, err = d.rawObject()
	} else {
		raw, err = d.raw()
	}
	if err == nil {
		*dst = raw
	}
	return err
}
