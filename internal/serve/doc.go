// Package serve runs the browser game's site: it listens (over HTTPS with
// certificates from files or obtained over ACME), serves the API of
// package server and the page of package web behind a check of the Host,
// answers the probes of load balancers, serves the metrics and Go's
// profiles on an address of their own, and stops without losing a move.
// It reads the serve command's options too. Only the wiring (package cli)
// uses it.
package serve
