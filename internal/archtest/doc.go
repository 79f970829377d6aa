// Package archtest holds the test that keeps the packages' imports as
// docs/architecture.md says they may be: the rules depend on nothing,
// play and what it stands on build for the browser, the domains speak no
// HTTP, the store keeps data and not rules, the bus carries notices and
// alone speaks to NATS and Redis, and only the wiring imports the server.
package archtest
