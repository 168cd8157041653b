import { LabDashboard } from '../components/lab-dashboard.tsx'

// The lab is live: nothing on this page is prerendered with data; the socket brings it.
export default function HomePage() {
  return <LabDashboard />
}
