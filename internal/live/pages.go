package live

import "github.com/flagshipctf/flagship/internal/ctf"

func pagesByName(list []ctf.Page) map[string]ctf.Page {
	m := make(map[string]ctf.Page, len(list))
	for _, p := range list {
		m[p.Name] = p
	}
	return m
}

// Page returns one of the event's pages (its text "" when it has none).
func (st *State) Page(name string) ctf.Page {
	st.mu.RLock()
	defer st.mu.RUnlock()
	if p, ok := st.pages[name]; ok {
		return p
	}
	return ctf.Page{Name: name}
}

// Logo returns the event's logo, if it has one. Its bytes are shared: the
// caller does not change them.
func (st *State) Logo() (ctf.Logo, bool) {
	st.mu.RLock()
	defer st.mu.RUnlock()
	if st.logo == nil {
		return ctf.Logo{}, false
	}
	return *st.logo, true
}
