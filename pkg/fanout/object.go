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
// header when it is read, the annotations filtered then; anything else
// asked of the map (its size, its keys, equality, conversions, printing)
// is answered by objectInput's map, made then. A target's object is read
// by one goroutine only.
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
	return o.map_().Find(key)
}

// map_ is objectInput's map, made on first use.
func (o *object) map_() traits.Mapper {
	if o.whole == nil {
		o.whole = objectInput(o.h).(traits.Mapper)
	}
	return o.whole
}

func (o *object) Contains(key ref.Val) ref.Val { return o.map_().Contains(key) }
func (o *object) Get(key ref.Val) ref.Val      { return o.map_().Get(key) }
func (o *object) Iterator() traits.Iterator    { return o.map_().Iterator() }
func (o *object) Size() ref.Val                { return o.map_().Size() }
func (o *object) Equal(other ref.Val) ref.Val  { return o.map_().Equal(other) }
func (o *object) Type() ref.Type               { return types.MapType }
func (o *object) Value() any                   { return o.map_().Value() }
func (o *object) String() string               { return o.map_().(fmt.Stringer).String() }
func (o *object) IsZeroValue() bool            { return o.map_().(traits.Zeroer).IsZeroValue() }

func (o *object) ConvertToNative(typeDesc reflect.Type) (any, error) {
	return o.map_().ConvertToNative(typeDesc)
}

func (o *object) ConvertToType(typeVal ref.Type) ref.Val { return o.map_().ConvertToType(typeVal) }

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
	return a.map_().Find(key)
}

// map_ is objectAnnotations' map, made on first use.
func (a *annotations) map_() traits.Mapper {
	if a.whole == nil {
		a.whole = types.NewStringStringMap(types.DefaultTypeAdapter, objectAnnotations(resourcelist.Header{Annotations: a.all}))
	}
	return a.whole
}

func (a *annotations) Contains(key ref.Val) ref.Val { return a.map_().Contains(key) }
func (a *annotations) Get(key ref.Val) ref.Val      { return a.map_().Get(key) }
func (a *annotations) Iterator() traits.Iterator    { return a.map_().Iterator() }
func (a *annotations) Size() ref.Val                { return a.map_().Size() }
func (a *annotations) Equal(other ref.Val) ref.Val  { return a.map_().Equal(other) }
func (a *annotations) Type() ref.Type               { return types.MapType }
func (a *annotations) Value() any                   { return a.map_().Value() }
func (a *annotations) String() string               { return a.map_().(fmt.Stringer).String() }
func (a *annotations) IsZeroValue() bool            { return a.map_().(traits.Zeroer).IsZeroValue() }

func (a *annotations) ConvertToNative(typeDesc reflect.Type) (any, error) {
	return a.map_().ConvertToNative(typeDesc)
}

func (a *annotations) ConvertToType(typeVal ref.Type) ref.Val { return a.map_().ConvertToType(typeVal) }
