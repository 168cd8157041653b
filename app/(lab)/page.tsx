import { OverviewPage } from '../../components/lab-pages.tsx'

// The lab is live: nothing on this page is prerendered with data; the layout's socket brings it.
export default function HomePage() {
  return <OverviewPage />
}
