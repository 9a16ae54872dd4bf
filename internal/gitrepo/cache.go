package gitrepo

import (
	"container/list"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
)

// objectCache is the object cache of a repository opened with OpenKeeping:
// the objects last read, the least recently used dropped past maxSize
// bytes, as go-git's ObjectLRU keeps them, but without the table for 1,000
// objects that one sets up at its first object — most repositories a run
// opens are read for a few objects, and a run opens 1,000 of them.
type objectCache struct {
	mu      sync.Mutex
	maxSize int64
	size    int64
	ll      list.List
	m       map[plumbing.Hash]*list.Element
}

var _ cache.Object = (*objectCache)(nil)

func newObjectCache() *objectCache {
	return &objectCache{maxSize: int64(cache.DefaultMaxSize)}
}

// Put keeps an object (a larger one than maxSize is not kept), dropping
// the least recently used past maxSize.
func (c *objectCache) Put(o plumbing.EncodedObject) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[plumbing.Hash]*list.Element{}
	}
	if e, ok := c.m[o.Hash()]; ok {
		c.size += o.Size() - e.Value.(plumbing.EncodedObject).Size()
		e.Value = o
		c.ll.MoveToFront(e)
	} else {
		if o.Size() > c.maxSize {
			return
		}
		c.m[o.Hash()] = c.ll.PushFront(o)
		c.size += o.Size()
	}
	for c.size > c.maxSize && c.ll.Len() > 0 {
		last := c.ll.Remove(c.ll.Back()).(plumbing.EncodedObject)
		delete(c.m, last.Hash())
		c.size -= last.Size()
	}
}

// Get returns a kept object, now the most recently used.
func (c *objectCache) Get(h plumbing.Hash) (plumbing.EncodedObject, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[h]
	if !ok {
		return nil, false
	}
	c.ll.MoveToFront(e)
	return e.Value.(plumbing.EncodedObject), true
}

// Clear drops every object.
func (c *objectCache) Clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m, c.size = nil, 0
	c.ll.Init()
}
