// Package race tells tests whether the race detector is on, so that stress
// tests keep CI fast under it by running fewer iterations (see Scale). It is
// the one place of that knob for every package of the module.
package race
