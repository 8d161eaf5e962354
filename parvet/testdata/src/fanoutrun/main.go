// Command fanoutrun holds hand-rolled fan-outs, one file per shape, whose
// output does not depend on timing: the fanout analyzer's tests run it
// before and after its suggested fixes and compare what it prints.
package main

func main() {
	runWaitGroup()
	runErrgroup()
	runSemaphore()
	runWorkers()
	runMoved()
}
