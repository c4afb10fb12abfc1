package resources

import "fmt"

// HumanBytes is a size for messages and progress lines: "21 MB".
func HumanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 10<<20:
		return fmt.Sprintf("%d MB", (n+1<<19)>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.2f MB", float64(n)/(1<<20)) // "needs 1.02 MB", not a rounded "1 MB" beside "1000 KB free"
	case n >= 1<<10:
		return fmt.Sprintf("%d KB", (n+1<<9)>>10)
	}
	return fmt.Sprintf("%d B", n)
}
