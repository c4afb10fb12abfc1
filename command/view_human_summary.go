package command

import (
	"fmt"

	"github.com/eggo-project/eggo/engine"
	"github.com/eggo-project/eggo/internal/text"
	"github.com/eggo-project/eggo/resources"
)

// Summary ends an apply or destroy: the warnings of hooks that failed and
// continued, the counts and costs, and when anything failed an error
// listing every failure by address and host.
func (v *humanView) Summary(op string, p *engine.Plan, r *engine.Result) {
	col := v.col
	for _, w := range r.HookWarnings {
		fmt.Fprintf(v.out, "\n%s\n", warning(col, w))
	}
	figures := fmt.Sprintf("%s, %s, %s uploaded", roundDur(r.Took), text.Plural(int(r.Connections), "connection"), resources.HumanBytes(r.Bytes))
	if r.OK() {
		what := "Apply complete!"
		if op == "destroy" {
			what = "Destroy complete!"
		}
		fmt.Fprintf(v.out, "\n%s Resources: %d added, %d changed, %d destroyed. (%s)\n", col.c(green, what), r.Counts.Add, r.Counts.Change, r.Counts.Destroy, figures)
		return
	}
	fmt.Fprintf(v.out, "\nResources: %d added, %d changed, %d destroyed. (%s)\n", r.Counts.Add, r.Counts.Change, r.Counts.Destroy, figures)
	n := len(r.Failed)
	v.Error(fmt.Sprintf("%s did not finish: %s failed, %d skipped, %d not started. State keeps what was done; fix the cause and run %s again.\n%s",
		op, text.Plural(n, "resource"), len(r.Skipped), len(r.NotStarted), op, engine.FailureSummary(p, r)))
}
