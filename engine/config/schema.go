package config

import "github.com/hashicorp/hcl/v2"

// The schemas are the whole vocabulary of the language: HCL reports any
// block or attribute not listed here as unsupported, with its range.

var rootSchema = &hcl.BodySchema{
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "cluster", LabelNames: []string{"name"}},
		{Type: "connection"},
		{Type: "node", LabelNames: []string{"label"}},
		{Type: "variable", LabelNames: []string{"name"}},
		{Type: "locals"},
		{Type: "output", LabelNames: []string{"name"}},
		{Type: "hook", LabelNames: []string{"name"}},
		{Type: "secrets"},
		{Type: "backend", LabelNames: []string{"type"}},
	},
}

var secretsSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "recipients", Required: true},
	},
}

var etcdBackendSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "endpoints", Required: true},
		{Name: "prefix"},
		{Name: "ca_file"},
		{Name: "cert_file"},
		{Name: "key_file"},
		{Name: "lock_ttl"},
		{Name: "lock_timeout"},
	},
}

var kubeBackendSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "namespace"},
		{Name: "kubeconfig"},
		{Name: "context"},
		{Name: "lock_ttl"},
		{Name: "lock_timeout"},
	},
}

var fileBackendSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "path"},
	},
}

var clusterSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "kubernetes_version", Required: true},
		{Name: "packages"},
		{Name: "config_dir"},
		{Name: "api_endpoint"},
		{Name: "labels"},
		{Name: "annotations"},
		{Name: "max_unavailable"},
		{Name: "schedule_on_masters"},
		{Name: "implementation"},
		{Name: "etcd_implementation"},
		{Name: "extra_args"},
	},
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "network"},
		{Type: "certificates"},
		{Type: "runtime"},
		{Type: "addons"},
	},
}

var addonsSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "coredns"},
		{Name: "kube_proxy"},
		{Name: "coredns_replicas"},
		{Name: "coredns_upstream"},
		{Name: "manifests"},
	},
}

var runtimeSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "restrict_oom_score_adj"},
		{Name: "cgroup_root_per_node"},
		{Name: "eviction_hard"},
		{Name: "image_gc_high_percent"},
		{Name: "image_gc_low_percent"},
		{Name: "registry_mirrors"},
	},
}

var networkSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "service_cidr"},
		{Name: "pod_cidr"},
		{Name: "dns_domain"},
	},
}

var certificatesSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "validity"},
		{Name: "ca_validity"},
		{Name: "renew_before"},
		{Name: "extra_sans"},
	},
	Blocks: []hcl.BlockHeaderSchema{{Type: "client", LabelNames: []string{"name"}}},
}

// clientSchema is a certificates block's client "NAME" (certificates_client.go).
var clientSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "groups", Required: true},
		{Name: "validity"},
		{Name: "renew_before"},
	},
}

var connectionSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "type"},
		{Name: "user"},
		{Name: "port"},
		{Name: "private_key_file"},
		{Name: "password_env"},
		{Name: "agent"},
		{Name: "known_hosts_file"},
		{Name: "host_key"},
		{Name: "sudo"},
		{Name: "timeout"},
		{Name: "retries"},
	},
	Blocks: []hcl.BlockHeaderSchema{{Type: "bastion"}},
}

var bastionSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "host"},
		{Name: "port"},
		{Name: "user"},
		{Name: "private_key_file"},
		{Name: "password_env"},
		{Name: "host_key"},
	},
}

var nodeSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "name"},
		{Name: "address", Required: true},
		{Name: "arch"},
		{Name: "roles", Required: true},
		{Name: "labels"},
		{Name: "taints"},
		{Name: "provider_id"},
		{Name: "depends_on"},
		{Name: "for_each"},
		{Name: "count"},
	},
	Blocks: []hcl.BlockHeaderSchema{{Type: "connection"}},
}

var variableSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "type"},
		{Name: "default"},
		{Name: "description"},
		{Name: "sensitive"},
	},
}

var outputSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "value", Required: true},
		{Name: "description"},
		{Name: "sensitive"},
	},
}

// hookSchema: shell attributes (source, files, grace), check attributes
// (args … consecutive_error_limit and the provider blocks) and the common
// ones. Which apply to a hook depends on its type; hooks.go says so.
var hookSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "on", Required: true},
		{Name: "type"},
		{Name: "scope"},
		{Name: "run_on"},
		{Name: "roles"},
		{Name: "nodes"},
		{Name: "source"},
		{Name: "files"},
		{Name: "timeout"},
		{Name: "grace"},
		{Name: "policy"},
		{Name: "attempts"},
		{Name: "backoff"},
		{Name: "fallback"},
		{Name: "args"},
		{Name: "count"},
		{Name: "interval"},
		{Name: "initial_delay"},
		{Name: "success_condition"},
		{Name: "failure_condition"},
		{Name: "failure_limit"},
		{Name: "inconclusive_limit"},
		{Name: "consecutive_error_limit"},
	},
	Blocks: []hcl.BlockHeaderSchema{{Type: "web"}, {Type: "prometheus"}},
}

var hookWebSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "url", Required: true},
		{Name: "method"},
		{Name: "headers"},
		{Name: "body"},
		{Name: "json_path"},
		{Name: "timeout"},
	},
}

var hookPrometheusSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "address", Required: true},
		{Name: "query", Required: true},
		{Name: "timeout"},
	},
}
