package fanout

import (
	"fmt"
	"reflect"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"

	"github.com/kptkit/kptkit/pkg/resourcelist"
)

// object is what expressions see of an object (objectInput), made as they
// read it: a field (name, namespace, labels, annotations) comes from the
// header when it is read (see annotations); anything else asked of the map
// (its size, its keys, equality, conversions, printing) is answered by
// objectInput's map, made then. A target's object is read by one goroutine
// only.
type object struct {
	h           resourcelist.Header
	labels      ref.Val
	annotations *annotations
	whole       traits.Mapper
}

var _ traits.Mapper = (*object)(nil)

func newObject(h resourcelist.Header) *object { return &object{h: h} }

// Find answers the four fields from the header, and everything else as
// objectInput's map does.
func (o *object) Find(key ref.Val) (ref.Val, bool) {
	if k, ok := key.(types.String); ok {
		switch k {
		case "name":
			return types.String(o.h.Name), true
		case "namespace":
			return types.String(scope(o.h.Namespace)), true
		case "labels":
			if o.labels == nil {
				o.labels = types.NewStringStringMap(types.DefaultTypeAdapter, objectLabels(o.h))
			}
			return o.labels, true
		case "annotations":
			if o.annotations == nil {
				o.annotations = &annotations{all: o.h.Annotations}
			}
			return o.annotations, true
		}
	}
	return o.asMap().Find(key)
}

// asMap is objectInput's map, made on first use.
func (o *object) asMap() traits.Mapper {
	if o.whole == nil {
		o.whole = objectInput(o.h).(traits.Mapper)
	}
	return o.whole
}

func (o *object) Contains(key ref.Val) ref.Val { return o.asMap().Contains(key) }
func (o *object) Get(key ref.Val) ref.Val      { return o.asMap().Get(key) }
func (o *object) Iterator() traits.Iterator    { return o.asMap().Iterator() }
func (o *object) Size() ref.Val                { return o.asMap().Size() }
func (o *object) Equal(other ref.Val) ref.Val  { return o.asMap().Equal(other) }
func (o *object) Type() ref.Type               { return types.MapType }
func (o *object) Value() any                   { return o.asMap().Value() }
func (o *object) String() string               { return o.asMap().(fmt.Stringer).String() }
func (o *object) IsZeroValue() bool            { return o.asMap().(traits.Zeroer).IsZeroValue() }

func (o *object) ConvertToNative(typeDesc reflect.Type) (any, error) {
	return o.asMap().ConvertToNative(typeDesc)
}

func (o *object) ConvertToType(typeVal ref.Type) ref.Val { return o.asMap().ConvertToType(typeVal) }

// annotations are an object's annotations as expressions see them
// (objectAnnotations): one is looked up in the header's map, skipping the
// ones kpt and kptkit add; anything else asked of them is answered by
// objectAnnotations' map, made then.
type annotations struct {
	all   map[string]string
	whole traits.Mapper
}

var _ traits.Mapper = (*annotations)(nil)

func (a *annotations) Find(key ref.Val) (ref.Val, bool) {
	if k, ok := key.(types.String); ok {
		if v, found := a.all[string(k)]; found && shown(string(k)) {
			return types.String(v), true
		}
		return nil, false
	}
	return a.asMap().Find(key)
}

// asMap is objectAnnotations' map, made on first use.
func (a *annotations) asMap() traits.Mapper {
	if a.whole == nil {
		a.whole = types.NewStringStringMap(types.DefaultTypeAdapter, objectAnnotations(resourcelist.Header{Annotations: a.all}))
	}
	return a.whole
}

func (a *annotations) Contains(key ref.Val) ref.Val { return a.asMap().Contains(key) }
func (a *annotations) Get(key ref.Val) ref.Val      { return a.asMap().Get(key) }
func (a *annotations) Iterator() traits.Iterator    { return a.asMap().Iterator() }
func (a *annotations) Size() ref.Val                { return a.asMap().Size() }
func (a *annotations) Equal(other ref.Val) ref.Val  { return a.asMap().Equal(other) }
func (a *annotations) Type() ref.Type               { return types.MapType }
func (a *annotations) Value() any                   { return a.asMap().Value() }
func (a *annotations) String() string               { return a.asMap().(fmt.Stringer).String() }
func (a *annotations) IsZeroValue() bool            { return a.asMap().(traits.Zeroer).IsZeroValue() }

func (a *annotations) ConvertToNative(typeDesc reflect.Type) (any, error) {
	return a.asMap().ConvertToNative(typeDesc)
}

func (a *annotations) ConvertToType(typeVal ref.Type) ref.Val {
	return a.asMap().ConvertToType(typeVal)
}
