package units

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// MaxBytes is the largest size ParseBytes accepts (2^62): every caller's
// own range lies below it and no product with a small count overflows.
const MaxBytes = 1 << 62

// Units of ParseBytes and FormatBytes.
const (
	KiB int64 = 1 << 10
	MiB int64 = 1 << 20
	GiB int64 = 1 << 30
	TiB int64 = 1 << 40
)

// ErrSyntax is wrapped by ParseBytes's errors for text that is not a size.
var ErrSyntax = errors.New("not a size")

// ParseBytes parses a byte size (see the package comment). The error says
// what is wrong with s without naming the setting; callers add that.
func ParseBytes(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, fmt.Errorf("%q: %w (want an integer with an optional unit K, M, G, T: 4K is 4096 bytes)", s, ErrSyntax)
	}
	n, err := strconv.ParseInt(t[:i], 10, 64)
	if err != nil || n > MaxBytes {
		return 0, fmt.Errorf("%q: more than 2^62 bytes", s)
	}
	mult, ok := multiplier(strings.TrimSpace(t[i:]))
	if !ok {
		return 0, fmt.Errorf("%q: %w: unknown unit %q (want K, M, G, T, with or without B or iB, or B)", s, ErrSyntax, strings.TrimSpace(t[i:]))
	}
	if n > MaxBytes/mult {
		return 0, fmt.Errorf("%q: more than 2^62 bytes", s)
	}
	return n * mult, nil
}

func multiplier(unit string) (int64, bool) {
	u := strings.ToUpper(unit)
	if u == "" || u == "B" {
		return 1, true
	}
	// The letter, then nothing, "B", "I" or "IB".
	if rest := u[1:]; rest != "" && rest != "B" && rest != "I" && rest != "IB" {
		return 0, false
	}
	switch u[0] {
	case 'K':
		return KiB, true
	case 'M':
		return MiB, true
	case 'G':
		return GiB, true
	case 'T':
		return TiB, true
	}
	return 0, false
}

// FormatBytes writes n in the largest binary unit that divides it exactly
// ("64MiB", "4KiB", "1000"), so that ParseBytes(FormatBytes(n)) == n.
// Negative n is written as a plain number.
func FormatBytes(n int64) string {
	if n > 0 {
		for _, u := range []struct {
			m    int64
			name string
		}{{TiB, "TiB"}, {GiB, "GiB"}, {MiB, "MiB"}, {KiB, "KiB"}} {
			if n%u.m == 0 {
				return strconv.FormatInt(n/u.m, 10) + u.name
			}
		}
	}
	return strconv.FormatInt(n, 10)
}

// HumanBytes writes n approximately for people, in binary units with up
// to one decimal ("1.5 GiB", "350 KiB", "12 B").
func HumanBytes(n int64) string {
	f := float64(n)
	for _, u := range []struct {
		m    int64
		name string
	}{{TiB, "TiB"}, {GiB, "GiB"}, {MiB, "MiB"}, {KiB, "KiB"}} {
		if n >= u.m || -n >= u.m {
			v := f / float64(u.m)
			if v == float64(int64(v)) {
				return fmt.Sprintf("%d %s", int64(v), u.name)
			}
			return fmt.Sprintf("%.1f %s", v, u.name)
		}
	}
	return fmt.Sprintf("%d B", n)
}
