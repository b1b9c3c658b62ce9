package server

import (
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/flagshipctf/flagship/internal/clientaddr"
)

// AccessLog is where the line per request is written (serve: a
// BatchWriter), formatted as slog's TextHandler, or with JSON its
// JSONHandler, at their default options format it: serve's log.
type AccessLog struct {
	Out  io.Writer
	JSON bool
}

// accessLog writes the line per request. With out, the line is put
// together by hand, byte for byte what h writes, without the record, its
// attributes and the handler's generic formatting: that cost a request
// more than finding its route. h writes the lines that would need quoting
// or escaping (a path with a space, a quote or a byte that is not printable
// ASCII), which no well-formed client sends; without out, it writes every
// line.
type accessLog struct {
	h    slog.Handler
	out  io.Writer
	json bool
	// proxies: the client's address is the one clientaddr's middleware
	// resolved through trusted proxies, not the peer's.
	proxies bool
	// batch is out when it is a BatchWriter (serve's): its Write keeps
	// nothing of the line, which can then be on the stack.
	batch *BatchWriter
	// second is the text time of the last line, to its second.
	second atomic.Pointer[second]
}

func newAccessLog(a AccessLog, proxies bool) *accessLog {
	var h slog.Handler = slog.NewTextHandler(a.Out, nil)
	if a.JSON {
		h = slog.NewJSONHandler(a.Out, nil)
	}
	batch, _ := a.Out.(*BatchWriter)
	return &accessLog{h: h, out: a.Out, json: a.JSON, proxies: proxies, batch: batch}
}

var linePool = sync.Pool{New: func() any { b := make([]byte, 0, 256); return &b }}

// log writes r's line: end is when it was answered, took how long it took.
func (l *accessLog) log(r *http.Request, rec *recorder, end time.Time, took time.Duration) {
	switch {
	case l.out == nil:
	case l.batch != nil:
		var buf [320]byte
		if line, ok := l.appendLine(buf[:0], r, rec, end, took); ok {
			l.batch.Write(line)
			return
		}
	default:
		bp := linePool.Get().(*[]byte)
		defer linePool.Put(bp)
		if line, ok := l.appendLine((*bp)[:0], r, rec, end, took); ok {
			l.out.Write(line) // a log has nowhere to report its own failure
			*bp = line[:0]
			return
		}
	}
	logRequest(l.h, r, rec, end, took)
}

// lineFormat is what stands between the values of a line: slog's text
// or JSON, the time first.
type lineFormat struct {
	method, path, status, bytes, duration, remote, end string
}

var (
	textLine = lineFormat{" level=INFO msg=request method=", " path=", " status=", " bytes=", " duration=", " remote=", "\n"}
	jsonLine = lineFormat{`","level":"INFO","msg":"request","method":"`, `","path":"`, `","status":`, `,"bytes":`, `,"duration":`,
		`,"remote":"`, "\"}\n"}
)

// appendLine appends r's line; false if a value would need quoting or
// escaping, or the time is outside what RFC 3339 can write.
func (l *accessLog) appendLine(b []byte, r *http.Request, rec *recorder, end time.Time, took time.Duration) ([]byte, bool) {
	if !plain(r.Method) || !plain(r.URL.Path) {
		return b, false
	}
	end = end.Round(0) // as the handler does: no monotonic reading
	start, f := len(b), &textLine
	if l.json {
		if y := end.Year(); y < 0 || y >= 10000 {
			return b, false
		}
		f = &jsonLine
		b = append(b, `{"time":"`...)
		b = end.AppendFormat(b, time.RFC3339Nano)
	} else {
		b = l.appendTime(append(b, "time="...), end)
	}
	b = append(append(b, f.method...), r.Method...)
	b = append(append(b, f.path...), r.URL.Path...)
	b = strconv.AppendInt(append(b, f.status...), int64(rec.status), 10)
	b = strconv.AppendInt(append(b, f.bytes...), int64(rec.bytes), 10)
	b = append(b, f.duration...)
	if l.json {
		b = strconv.AppendInt(b, int64(took), 10)
	} else {
		b = append(b, took.String()...)
	}
	b = append(b, f.remote...)
	at := len(b)
	b = l.appendRemote(b, r)
	if !plain(b[at:]) {
		return b[:start], false
	}
	return append(b, f.end...), true
}

// plain reports whether both handlers write s as it is: not empty, and
// only plainBytes.
func plain[T string | []byte](s T) bool {
	if len(s) == 0 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !plainBytes[s[i]] {
			return false
		}
	}
	return true
}

// plainBytes are printable ASCII but space and '=' (text quotes them), '"'
// and '\' (JSON escapes them).
var plainBytes = func() (t [256]bool) {
	for c := '!'; c <= '~'; c++ {
		t[c] = c != '=' && c != '"' && c != '\\'
	}
	return t
}()

// appendRemote appends clientaddr.From(r). With no proxy trusted that is
// the peer's address as clientaddr reads it (IPv4-mapped as IPv4, no
// zone), here appended without the string From makes.
func (l *accessLog) appendRemote(b []byte, r *http.Request) []byte {
	if !l.proxies {
		if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
			if a, err := netip.ParseAddr(host); err == nil {
				return a.Unmap().WithZone("").AppendTo(b)
			}
		}
	}
	return append(b, clientaddr.From(r)...)
}

// second is a second of the text handler's time: the date and time up to
// the second, and the zone, for the Unix second and zone offset it was
// made for.
type second struct {
	unix       int64
	offset     int
	date, zone []byte
}

// appendTime appends t as appendRFC3339Millis does, formatting the date
// once a second: the lines of a second differ in their milliseconds only.
func (l *accessLog) appendTime(b []byte, t time.Time) []byte {
	unix := t.Unix()
	_, offset := t.Zone()
	s := l.second.Load()
	if s == nil || s.unix != unix || s.offset != offset {
		full := appendRFC3339Millis(nil, t)
		if len(full) < 24 || full[19] != '.' {
			// A year of more than four digits: the handler writes
			// what appendRFC3339Millis does, which is not this.
			return append(b, full...)
		}
		s = &second{unix: unix, offset: offset, date: full[:19], zone: full[23:]}
		l.second.Store(s)
	}
	ms := t.Nanosecond() / 1e6
	b = append(append(b, s.date...), '.', byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10))
	return append(b, s.zone...)
}

// appendRFC3339Millis is the text handler's time: RFC 3339 with exactly
// three digits of the second's fraction, truncated.
func appendRFC3339Millis(b []byte, t time.Time) []byte {
	const prefixLen = len("2006-01-02T15:04:05.000")
	n := len(b)
	// RFC3339Nano drops trailing zeros: a tenth of a millisecond more
	// keeps four digits, and the fourth is dropped.
	t = t.Truncate(time.Millisecond).Add(time.Millisecond / 10)
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b[:n+prefixLen], b[n+prefixLen+1:]...)
}

// logRequest writes the access log's line for r through h: what
// Logger.LogAttrs writes, without the clock read and the caller's program
// counter it takes for each record (the line's time is the request's end,
// and the log prints no source).
func logRequest(h slog.Handler, r *http.Request, rec *recorder, end time.Time, took time.Duration) {
	ctx := r.Context()
	if !h.Enabled(ctx, slog.LevelInfo) {
		return
	}
	line := slog.NewRecord(end, slog.LevelInfo, "request", 0)
	line.AddAttrs(slog.String("method", r.Method), slog.String("path", r.URL.Path),
		slog.Int("status", rec.status), slog.Int("bytes", rec.bytes),
		slog.Duration("duration", took), slog.String("remote", clientaddr.From(r)))
	h.Handle(ctx, line) // a log has nowhere to report its own failure
}
