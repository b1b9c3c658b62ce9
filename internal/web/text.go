package web

import "strconv"

// plural says a count of a noun in English: "1 solve", "0 solves",
// "2 more challenges" (issue 20, fix 14). The count may be any integer
// kind a view holds.
func plural(n any, noun string) string {
	var x int64
	switch v := n.(type) {
	case int:
		x = int64(v)
	case int64:
		x = v
	case int32:
		x = int64(v)
	case uint64:
		x = int64(v)
	}
	if x == 1 || x == -1 {
		return strconv.FormatInt(x, 10) + " " + noun
	}
	return strconv.FormatInt(x, 10) + " " + noun + "s"
}
