package agui

// This file holds the bodies of the generated MarshalJSON and UnmarshalJSON
// methods, through which every generated type works with encoding/json.

// unmarshalStruct is the body of every generated UnmarshalJSON: a strict
// decode of one whole document into *v, which is reset first so no member of
// an earlier value survives.
func unmarshalStruct[T any, P interface {
	*T
	decodeJSON(*decoder) error
}](data []byte, v P) error {
	*v = *new(T)
	d := getDecoder(data, false)
	defer putDecoder(d)
	if err := v.decodeJSON(d); err != nil {
		return err
	}
	return d.end()
}

// unmarshalList is unmarshalStruct for named list types such as JSONPatch.
func unmarshalList[E any](data []byte, v *[]E, decode func(*decoder) ([]E, error)) error {
	d := getDecoder(data, false)
	defer putDecoder(d)
	list, err := decode(d)
	if err == nil {
		err = d.end()
	}
	if err != nil {
		return err
	}
	*v = list
	return nil
}

// unmarshalEnum reads a whole document that must be a JSON string accepted by
// valid; allowed lists the defined values for the error message.
func unmarshalEnum(data []byte, allowed string, valid func(string) bool) (string, error) {
	d := getDecoder(data, false)
	defer putDecoder(d)
	s, err := d.str()
	if err == nil && !valid(s) {
		err = d.badEnum(s, allowed)
	}
	if err == nil {
		err = d.end()
	}
	return s, err
}

// marshalEnum is the body of the enums' MarshalJSON.
func marshalEnum(typ, v string, valid bool) ([]byte, error) {
	if !valid {
		return nil, &EncodeError{Type: typ, Err: errEnum(v)}
	}
	return AppendJSONString(nil, v), nil
}
