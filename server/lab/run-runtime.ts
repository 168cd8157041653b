// A headless run, the soak and the sweep drive the lab's runtime port (lab-runtime.ts) as it is;
// RunRuntime is its former name.

export type { LabRuntime as RunRuntime, RuntimeSlot as RunSlotView } from './lab-runtime.ts'
