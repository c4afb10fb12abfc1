package main

import (
	"fmt"
	"os"
	"path/filepath"

	"sigs.k8s.io/yaml"
)

// gitopsController is eggo's GitOps controller as controller/config's
// kustomization lists it (its Namespace eggo-system first), with the
// controller's image and the policy's jobImage both ${EGGO_IMAGE}: the
// control plane's EggoClusters are run by it, in its Jobs.
func gitopsController(root, image string) ([]object, error) {
	dir := filepath.Join(root, "..", "controller", "config")
	data, err := os.ReadFile(filepath.Join(dir, "kustomization.yaml"))
	if err != nil {
		return nil, err
	}
	var k struct {
		Resources []string `json:"resources"`
	}
	if err := yaml.Unmarshal(data, &k); err != nil {
		return nil, fmt.Errorf("%s/kustomization.yaml: %v", dir, err)
	}
	var out []object
	images := 0
	for _, r := range k.Resources {
		objs, err := readObjects(filepath.Join(dir, r))
		if err != nil {
			return nil, err
		}
		for _, o := range objs {
			images += setImage(o, imageVar(image))
		}
		out = append(out, objs...)
	}
	if images != 2 {
		return nil, fmt.Errorf("%s: set %d images, want the controller's and the policy's jobImage", dir, images)
	}
	return out, nil
}

// setImage names image as the controller Deployment's container's, or
// the policy's jobImage; it says how many it set.
func setImage(o object, image string) int {
	meta, _ := o["metadata"].(object)
	switch {
	case o["kind"] == "Deployment" && meta["name"] == "eggo-controller":
		spec, _ := o["spec"].(object)
		tmpl, _ := spec["template"].(object)
		pod, _ := tmpl["spec"].(object)
		containers, _ := pod["containers"].([]any)
		n := 0
		for _, c := range containers {
			if c, ok := c.(object); ok && c["name"] == "manager" {
				c["image"] = image
				n++
			}
		}
		return n
	case o["kind"] == "ConfigMap" && meta["name"] == "eggo-policy":
		data, _ := o["data"].(object)
		if data == nil {
			return 0
		}
		data["jobImage"] = image
		return 1
	}
	return 0
}
