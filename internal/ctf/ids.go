package ctf

import (
	"crypto/rand"
	"encoding/hex"
	"sync"
	"time"
)

// TimeFormat is how every timestamp leaves the platform: RFC 3339, UTC,
// milliseconds.
const TimeFormat = "2006-01-02T15:04:05.000Z"

// FormatTime formats t with TimeFormat.
func FormatTime(t time.Time) string { return t.UTC().Format(TimeFormat) }

// AppendTime appends t in TimeFormat to b. The leaderboard writes some
// 200,000 of them when its entries are built again (a dynamic challenge's
// solvers all change at once), so the fixed layout is written by hand, a
// few times faster than AppendFormat; years outside 0–9999 take the
// general path.
func AppendTime(b []byte, t time.Time) []byte {
	t = t.UTC()
	year, month, day := t.Date()
	if year < 0 || year > 9999 {
		return t.AppendFormat(b, TimeFormat)
	}
	hour, minute, sec := t.Clock()
	ms := t.Nanosecond() / 1e6
	return append(b,
		byte('0'+year/1000), byte('0'+year/100%10), byte('0'+year/10%10), byte('0'+year%10), '-',
		byte('0'+int(month)/10), byte('0'+int(month)%10), '-', byte('0'+day/10), byte('0'+day%10), 'T',
		byte('0'+hour/10), byte('0'+hour%10), ':', byte('0'+minute/10), byte('0'+minute%10), ':',
		byte('0'+sec/10), byte('0'+sec%10), '.', byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10), 'Z')
}

// Millis truncates t to the millisecond precision the platform stores.
func Millis(t time.Time) time.Time { return t.UTC().Truncate(time.Millisecond) }

var idMu sync.Mutex
var lastIDMillis int64
var idSeq uint16

// NewID returns a UUIDv7: time-ordered, so indexes stay compact, yet with
// 62 random bits, so ids cannot be guessed or enumerated.
func NewID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	ms := time.Now().UnixMilli()
	idMu.Lock()
	if ms <= lastIDMillis {
		// Same millisecond (or a clock step back): count up, so ids from
		// one process stay strictly ordered; borrow the next millisecond
		// when the 12-bit counter runs out.
		ms = lastIDMillis
		idSeq++
		if idSeq > 0xfff {
			ms++
			idSeq = 0
		}
	} else {
		// Start low in the counter's range to leave room for a burst.
		idSeq = (uint16(b[6])<<8 | uint16(b[7])) & 0x3ff
	}
	lastIDMillis = ms
	seq := idSeq
	idMu.Unlock()
	b[0], b[1], b[2], b[3], b[4], b[5] = byte(ms>>40), byte(ms>>32), byte(ms>>24), byte(ms>>16), byte(ms>>8), byte(ms)
	b[6] = 0x70 | byte(seq>>8)&0x0f
	b[7] = byte(seq)
	b[8] = b[8]&0x3f | 0x80
	return FormatUUID(b)
}

// FormatUUID writes a UUID in its canonical text form.
func FormatUUID(b [16]byte) string {
	var out [36]byte
	hex.Encode(out[0:8], b[0:4])
	out[8] = '-'
	hex.Encode(out[9:13], b[4:6])
	out[13] = '-'
	hex.Encode(out[14:18], b[6:8])
	out[18] = '-'
	hex.Encode(out[19:23], b[8:10])
	out[23] = '-'
	hex.Encode(out[24:], b[10:])
	return string(out[:])
}
