import { PageHeader } from '../ui/kit.js';

export function NotFoundView() {
  return (
    <>
      <PageHeader title="Page not found" />
      <p>
        There is no console page at this address. Go to the <a href="/">start page</a>.
      </p>
    </>
  );
}
