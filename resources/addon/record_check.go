package addon

import (
	"fmt"

	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/resources/kube"
)

// CheckRecord refuses an add-on's record whose delete would go through a
// master, or a kubeconfig, eggo does not record (kube.CheckVia), or whose
// objects are not named by strings.
func (Addon) CheckRecord(o resources.Object) error {
	if err := resources.CheckTargetAttrs(o.Attrs); err != nil {
		return err
	}
	if err := kube.CheckVia(o.Attrs, addonVia); err != nil {
		return err
	}
	objs, err := resources.ObjectList(o.Attrs, addonObjects)
	if err != nil {
		return err
	}
	for i, obj := range objs {
		for _, field := range []string{"api_version", "kind", "namespace", "name"} {
			if v, ok := obj[field]; ok {
				if _, isString := v.(string); !isString {
					return fmt.Errorf("%s[%d].%s is not a string", addonObjects, i, field)
				}
			}
		}
	}
	return nil
}
