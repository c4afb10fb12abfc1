package command

// colorizer wraps text in ANSI colours when enabled.
type colorizer bool

const (
	green  = "32"
	yellow = "33"
	red    = "31"
	cyan   = "36"
	bold   = "1"
)

func (c colorizer) c(code, s string) string {
	if !c {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}
