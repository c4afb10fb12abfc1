package kube

import "github.com/eggo-project/eggo/resources"

// CheckPlan warns of the hosts a current kubelet runs on with cgroup v1
// (cgroup_v1.go), and of the API versions clients still ask for that the
// minor a plan moves the apiservers to no longer serves (removed_apis.go).
func (Service) CheckPlan(r resources.PlanReview) ([]string, error) {
	if r.Destroy {
		return nil, nil
	}
	var warnings []string
	for _, w := range []string{cgroupV1Warning(r), removedAPIsWarning(r)} {
		if w != "" {
			warnings = append(warnings, w)
		}
	}
	return warnings, nil
}
