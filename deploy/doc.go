// Package deploy holds what runs taflab on Kubernetes: Dockerfile (the
// image of the commands) and k8s/ (a ReadWriteMany volume, the loop as a
// Job with external self-play, and a Deployment of self-play followers).
// It has no Go code to import; its test decodes every manifest with the
// Kubernetes API types, refusing unknown fields, and checks that the pieces
// fit together (docs/scale-out.md).
package deploy
