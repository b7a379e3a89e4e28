#!/usr/bin/python3
"""packaging/k8s/ and packaging/Dockerfile hold together, without a
Kubernetes cluster or a container builder: for every pod of the StatefulSet
(and of the TFJob, with the TF_CONFIG Kubeflow's operator sets) the TF_CONFIG
Kubernetes would give it, read by `dfg server --print-config`, names that
pod's own task, the cluster of all pods' stable DNS names and the port the
Service routes to; the Service is headless and selects the pods; the pods
run as the image's non-root user.

    /usr/bin/python3 testdata/packaging/check_k8s.py --dfg build/dfg
Exit 77 (skip) without python3-yaml; 1 then under DFG_REQUIRE_DEPS=1 (CI).
"""
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
PACKAGING = os.path.join(SRC, "packaging")
FAILURES = []

try:
    import yaml
except ImportError:
    if os.environ.get("DFG_REQUIRE_DEPS") == "1":
        print("FAIL: python3-yaml is not installed, and DFG_REQUIRE_DEPS=1")
        sys.exit(1)
    print("skipped: python3-yaml is not installed")
    sys.exit(77)


def check(cond, what, detail=""):
    print(("ok   " if cond else "FAIL ") + what + ("" if cond else f": {detail}"))
    if not cond:
        FAILURES.append(what)


def print_config(dfg, tf_config):
    env = dict(os.environ, TF_CONFIG=tf_config)
    r = subprocess.run([dfg, "server", "--print-config"], capture_output=True, text=True,
                       timeout=30, env=env)
    return (json.loads(r.stdout) if r.returncode == 0 else None), r.stderr


def expand(value, env):
    """Kubernetes' $(VAR) expansion of an env value."""
    return re.sub(r"\$\(([A-Za-z_][A-Za-z0-9_]*)\)", lambda m: env.get(m.group(1), m.group(0)),
                  value)


def image_user():
    """The Dockerfile's base image, numeric USER uid and what it COPYs."""
    text = open(os.path.join(PACKAGING, "Dockerfile")).read()
    base = re.findall(r"^FROM\s+(\S+)", text, re.M)
    user = re.findall(r"^USER\s+(\d+)", text, re.M)
    copies = re.findall(r"^COPY\s+(.+)$", text, re.M)
    return base, (int(user[-1]) if user else None), copies


def dockerfile():
    base, uid, copies = image_user()
    check(len(base) == 1 and re.fullmatch(r"debian:12(-slim)?", base[0]) is not None,
          "Dockerfile: one stage, Debian 12", base)
    check(uid not in (None, 0), "Dockerfile: a numeric non-root USER", uid)
    check(copies == ["dfg_*.deb /tmp/"], "Dockerfile: the .deb is all it copies in", copies)
    return uid


def pod_template_checks(name, spec, uid):
    sc = spec.get("securityContext", {})
    check(sc.get("runAsNonRoot") is True and sc.get("runAsUser") == uid,
          f"{name}: pods run as the image's non-root user {uid}", sc)


def statefulset(dfg, uid):
    docs = list(yaml.safe_load_all(open(os.path.join(PACKAGING, "k8s", "dfg-cluster.yaml"))))
    kinds = {d["kind"]: d for d in docs}
    svc, sts, policy = kinds.get("Service"), kinds.get("StatefulSet"), kinds.get("NetworkPolicy")
    check(svc and sts and policy, "dfg-cluster.yaml: a Service, a StatefulSet, a NetworkPolicy",
          list(kinds))
    labels = sts["spec"]["template"]["metadata"]["labels"]
    check(svc["spec"].get("clusterIP") == "None", "the Service is headless")
    check(sts["spec"]["serviceName"] == svc["metadata"]["name"],
          "the StatefulSet's pods are named through the Service")
    check(all(labels.get(k) == v for k, v in svc["spec"]["selector"].items()) and
          all(labels.get(k) == v for k, v in sts["spec"]["selector"]["matchLabels"].items()),
          "the Service and the StatefulSet select the pods")
    check(all(labels.get(k) == v for k, v in policy["spec"]["podSelector"]["matchLabels"].items()),
          "the NetworkPolicy covers the pods")
    pod = sts["spec"]["template"]["spec"]
    pod_template_checks("StatefulSet", pod, uid)
    container = pod["containers"][0]
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    port = ports.get(svc["spec"]["ports"][0]["targetPort"])
    check(port is not None, "the Service routes to the container's named port", ports)
    replicas = sts["spec"]["replicas"]
    name, service = sts["metadata"]["name"], svc["metadata"]["name"]
    want_cluster = {"worker": [f"{name}-{i}.{service}:{port}" for i in range(replicas)]}
    for i in range(replicas):
        # The pod's env as Kubernetes builds it: POD_INDEX from the pod-index label.
        env = {}
        for var in container["env"]:
            if "valueFrom" in var:
                path = var["valueFrom"]["fieldRef"]["fieldPath"]
                check(path == "metadata.labels['apps.kubernetes.io/pod-index']",
                      f"{var['name']} is the pod's ordinal", path)
                env[var["name"]] = str(i)
            else:
                env[var["name"]] = expand(var["value"], env)
        config, err = print_config(dfg, env["TF_CONFIG"])
        check(config is not None and config["cluster"] == want_cluster and
              config["task"] == {"type": "worker", "index": i} and
              config["listen"] == f"0.0.0.0:{port}" and
              config.get("master") == f"grpc://{name}-{i}.{service}:{port}",
              f"pod {name}-{i}: TF_CONFIG names its own task in the cluster",
              f"{config} {err}")
        check("warning" in err and "TLS" in err,
              f"pod {name}-{i}: the security warning for every interface", err)
    check(container.get("args") == ["server"], "the pods run dfg server", container.get("args"))


def tfjob(dfg, uid):
    job = yaml.safe_load(open(os.path.join(PACKAGING, "k8s", "tfjob.yaml")))
    check(job["kind"] == "TFJob", "tfjob.yaml is a TFJob", job["kind"])
    worker = job["spec"]["tfReplicaSpecs"]["Worker"]
    pod = worker["template"]["spec"]
    pod_template_checks("TFJob", pod, uid)
    container = pod["containers"][0]
    check(container["name"] == "tensorflow", "the TFJob's container is named tensorflow")
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    check("tfjob-port" in ports, "the TFJob's port is tfjob-port", ports)
    port, name, n = ports.get("tfjob-port", 2222), job["metadata"]["name"], worker["replicas"]
    cluster = {"worker": [f"{name}-worker-{i}.default.svc:{port}" for i in range(n)]}
    for i in range(n):
        # What Kubeflow's training operator sets.
        tf_config = json.dumps({"cluster": cluster, "task": {"type": "worker", "index": i},
                                "environment": "cloud"})
        config, err = print_config(dfg, tf_config)
        check(config is not None and config["cluster"] == cluster and
              config["task"] == {"type": "worker", "index": i} and
              config["listen"] == f"0.0.0.0:{port}",
              f"TFJob worker {i}: dfg serves the task TF_CONFIG names", f"{config} {err}")


def main():
    dfg = sys.argv[sys.argv.index("--dfg") + 1] if "--dfg" in sys.argv else \
        os.path.join(SRC, "build", "dfg")
    uid = dockerfile()
    statefulset(dfg, uid)
    tfjob(dfg, uid)
    print(f"{len(FAILURES)} failed")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
