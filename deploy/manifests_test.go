package deploy

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// manifests reads every document of k8s/*.yaml, decoded strictly into the
// Kubernetes type of its kind (and kustomization.yaml into the fields of
// Kustomize's that it uses): an unknown or misspelt field, a value of the
// wrong type or a kind the test does not know fails.
type manifests struct {
	pvcs           []corev1.PersistentVolumeClaim
	jobs           []batchv1.Job
	deployments    []appsv1.Deployment
	kustomizations []kustomization
	files          []string // the file of each document, by base name
}

// kustomization is the part of Kustomize's file that deploy/k8s uses.
type kustomization struct {
	APIVersion string   `json:"apiVersion"`
	Kind       string   `json:"kind"`
	Resources  []string `json:"resources"`
	Images     []struct {
		Name    string `json:"name"`
		NewName string `json:"newName"`
		NewTag  string `json:"newTag"`
	} `json:"images"`
}

func readManifests(t *testing.T, dir string) manifests {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests in %s: %v", dir, err)
	}
	var m manifests
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, doc := range bytes.Split(data, []byte("\n---")) {
			if len(bytes.TrimSpace(doc)) == 0 {
				continue
			}
			if err := decode(doc, &m); err != nil {
				t.Errorf("%s: document %d: %v", f, i+1, err)
			}
			m.files = append(m.files, filepath.Base(f))
		}
	}
	return m
}

func decode(doc []byte, m *manifests) error {
	var head struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if err := yaml.Unmarshal(doc, &head); err != nil {
		return err
	}
	switch head.APIVersion + " " + head.Kind {
	case "v1 PersistentVolumeClaim":
		var v corev1.PersistentVolumeClaim
		if err := yaml.UnmarshalStrict(doc, &v); err != nil {
			return err
		}
		m.pvcs = append(m.pvcs, v)
	case "batch/v1 Job":
		var v batchv1.Job
		if err := yaml.UnmarshalStrict(doc, &v); err != nil {
			return err
		}
		m.jobs = append(m.jobs, v)
	case "apps/v1 Deployment":
		var v appsv1.Deployment
		if err := yaml.UnmarshalStrict(doc, &v); err != nil {
			return err
		}
		m.deployments = append(m.deployments, v)
	case "kustomize.config.k8s.io/v1beta1 Kustomization":
		var v kustomization
		if err := yaml.UnmarshalStrict(doc, &v); err != nil {
			return err
		}
		m.kustomizations = append(m.kustomizations, v)
	default:
		return &unknownKind{head.APIVersion, head.Kind}
	}
	return nil
}

type unknownKind struct{ apiVersion, kind string }

func (u *unknownKind) Error() string {
	return "kind " + u.kind + " of " + u.apiVersion + ": the test decodes PersistentVolumeClaim, Job, Deployment and Kustomization"
}

// TestDecodeRefusesUnknownFields shows the check can fail: a misspelt
// field, a field at the wrong level, a wrong type.
func TestDecodeRefusesUnknownFields(t *testing.T) {
	for _, c := range []struct{ name, doc string }{
		{"misspelt", "apiVersion: batch/v1\nkind: Job\nspec:\n  backofLimit: 3\n"},
		{"wrong level", "apiVersion: apps/v1\nkind: Deployment\nspec:\n  template:\n    spec:\n      image: x\n"},
		{"wrong type", "apiVersion: v1\nkind: PersistentVolumeClaim\nspec:\n  accessModes: ReadWriteMany\n"},
		{"unknown kind", "apiVersion: v1\nkind: Pod\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := decode([]byte(c.doc), &manifests{}); err == nil {
				t.Errorf("got no error, want one for %q", c.doc)
			}
		})
	}
}

// TestManifests decodes deploy/k8s and checks that the pieces fit: one
// ReadWriteMany claim that every pod mounts; the loop Job and the
// followers' Job running the image's commands on the same run folder under
// the mount; the image named once, in kustomization.yaml, which lists the
// other files; on every container CPU and memory requests, a CPU limit
// equal to the request (Go's GOMAXPROCS follows the limit, and -workers 0
// uses it) and a memory limit; no root, no privilege escalation, a
// read-only root file system; followers that are replaced when evicted
// and whose Job completes when the first exits 0 (the run is done).
func TestManifests(t *testing.T) {
	m := readManifests(t, "k8s")
	if len(m.pvcs) != 1 || len(m.jobs) != 2 || len(m.deployments) != 0 || len(m.kustomizations) != 1 {
		t.Fatalf("got %d claims, %d jobs, %d deployments, %d kustomizations; want 1, 2, 0, 1", len(m.pvcs), len(m.jobs), len(m.deployments), len(m.kustomizations))
	}
	pvc := m.pvcs[0]
	if !slices.Equal(pvc.Spec.AccessModes, []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany}) {
		t.Errorf("claim %s: got access modes %v, want ReadWriteMany", pvc.Name, pvc.Spec.AccessModes)
	}
	if pvc.Spec.Resources.Requests.Storage().IsZero() {
		t.Errorf("claim %s: got no storage request, want one", pvc.Name)
	}
	k := m.kustomizations[0]
	var others []string
	for _, f := range m.files {
		if f != "kustomization.yaml" && !slices.Contains(others, f) {
			others = append(others, f)
		}
	}
	if got := slices.Sorted(slices.Values(k.Resources)); !slices.Equal(got, others) || k.Resources[0] != "pvc.yaml" {
		t.Errorf("kustomization.yaml: got resources %v, want %v, the claim first", k.Resources, others)
	}
	if len(k.Images) != 1 || k.Images[0].NewName == "" || k.Images[0].NewTag == "" || k.Images[0].NewTag == "latest" {
		t.Fatalf("kustomization.yaml: got images %+v, want one with newName and a newTag other than latest (pulled always)", k.Images)
	}
	dockerfile, err := os.ReadFile("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	// run returns the run folder the command of a pod names after flag.
	run := func(what string, spec corev1.PodSpec, command, flag string) string {
		t.Helper()
		if len(spec.Containers) != 1 {
			t.Fatalf("%s: got %d containers, want 1", what, len(spec.Containers))
		}
		c := spec.Containers[0]
		for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
			if q, ok := c.Resources.Requests[r]; !ok || q.IsZero() {
				t.Errorf("%s: got no %s request, want one", what, r)
			}
		}
		if req, lim := c.Resources.Requests[corev1.ResourceCPU], c.Resources.Limits[corev1.ResourceCPU]; lim.Cmp(req) != 0 {
			t.Errorf("%s: got CPU limit %v and request %v, want them equal", what, &lim, &req)
		}
		if req, lim := c.Resources.Requests[corev1.ResourceMemory], c.Resources.Limits[corev1.ResourceMemory]; lim.Cmp(req) < 0 {
			t.Errorf("%s: got memory limit %v under the request %v, want one at least the request", what, &lim, &req)
		}
		ps, cs := spec.SecurityContext, c.SecurityContext
		if ps == nil || ps.RunAsNonRoot == nil || !*ps.RunAsNonRoot || ps.RunAsUser == nil || *ps.RunAsUser == 0 ||
			!bytes.Contains(dockerfile, []byte(fmt.Sprintf("USER %d:", *ps.RunAsUser))) {
			t.Errorf("%s: got pod security context %+v, want runAsNonRoot and the Dockerfile's user", what, ps)
		}
		if cs == nil || cs.AllowPrivilegeEscalation == nil || *cs.AllowPrivilegeEscalation || cs.ReadOnlyRootFilesystem == nil || !*cs.ReadOnlyRootFilesystem ||
			cs.Capabilities == nil || !slices.Equal(cs.Capabilities.Drop, []corev1.Capability{"ALL"}) {
			t.Errorf("%s: got container security context %+v, want no privilege escalation, a read-only root and no capabilities", what, cs)
		}
		if len(c.Command) == 0 || c.Command[0] != command || !bytes.Contains(dockerfile, []byte("-o /out/"+command+" ./cmd/"+command)) {
			t.Errorf("%s: got command %v, want %s, which the Dockerfile builds", what, c.Command, command)
		}
		if name, _, _ := strings.Cut(c.Image, ":"); name != k.Images[0].Name {
			t.Errorf("%s: got image %q, want %s, which kustomization.yaml sets", what, c.Image, k.Images[0].Name)
		}
		if len(spec.Volumes) != 1 || spec.Volumes[0].PersistentVolumeClaim == nil || spec.Volumes[0].PersistentVolumeClaim.ClaimName != pvc.Name {
			t.Fatalf("%s: got volumes %+v, want the claim %s", what, spec.Volumes, pvc.Name)
		}
		if len(c.VolumeMounts) != 1 || c.VolumeMounts[0].Name != spec.Volumes[0].Name {
			t.Fatalf("%s: got mounts %+v, want the shared volume", what, c.VolumeMounts)
		}
		i := slices.Index(c.Command, flag)
		if i < 0 || i+1 >= len(c.Command) {
			t.Fatalf("%s: got command %v, want %s RUN", what, c.Command, flag)
		}
		dir := c.Command[i+1]
		if !strings.HasPrefix(dir, c.VolumeMounts[0].MountPath+"/") {
			t.Errorf("%s: run folder %s is not on the shared volume (%s)", what, dir, c.VolumeMounts[0].MountPath)
		}
		return dir
	}
	job, followers := m.jobs[0], m.jobs[1]
	if job.Spec.Template.Spec.Containers[0].Command[0] != "train" {
		job, followers = followers, job
	}
	if p := job.Spec.Template.Spec.RestartPolicy; p != corev1.RestartPolicyOnFailure {
		t.Errorf("loop job: got restart policy %q, want OnFailure (a resumed loop carries on)", p)
	}
	loopRun := run("loop job", job.Spec.Template.Spec, "train", "-run")
	if c := job.Spec.Template.Spec.Containers[0].Command; len(c) < 2 || c[1] != "loop" || !slices.Contains(c, "-external") {
		t.Errorf("loop job: got command %v, want train loop ... -external", c)
	}
	followRun := run("followers", followers.Spec.Template.Spec, "selfplay", "-follow")
	if loopRun != followRun {
		t.Errorf("got the loop on %s and the followers on %s, want one run folder", loopRun, followRun)
	}
	f := followers.Spec
	if f.Parallelism == nil || *f.Parallelism < 1 || f.Completions != nil {
		t.Errorf("followers: got parallelism %v and completions %v, want some at once and no completions (done when one exits 0)", f.Parallelism, f.Completions)
	}
	ignoresEvictions := false
	if f.PodFailurePolicy != nil {
		for _, r := range f.PodFailurePolicy.Rules {
			for _, c := range r.OnPodConditions {
				ignoresEvictions = ignoresEvictions || r.Action == batchv1.PodFailurePolicyActionIgnore && c.Type == corev1.DisruptionTarget
			}
		}
	}
	if !ignoresEvictions || f.Template.Spec.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("followers: got pod failure policy %+v, restart policy %q; want evictions ignored (replaced, not counted), Never", f.PodFailurePolicy, f.Template.Spec.RestartPolicy)
	}
}
