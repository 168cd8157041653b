export { createLab, Lab, type LabOptions } from './lab.ts'
export type { LabController } from './lab-controller.ts'
