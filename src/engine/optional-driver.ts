// Drivers of server databases are optional peer dependencies: an application
// installs the ones it uses, and a kit loads its own only when a url of its kind is opened.
import { StoreConfigurationError } from '../store.errors.js';

/** `load()` (a dynamic import of `packages[0]`), or a StoreConfigurationError naming what to install when a package is missing. */
export async function optionalDriver<T>(label: string, packages: string[], load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const missing =
      ['ERR_MODULE_NOT_FOUND', 'MODULE_NOT_FOUND'].includes(String((error as { code?: unknown })?.code)) &&
      packages.some((name) => String((error as Error).message).includes(`'${name}'`));
    if (!missing) throw error;
    throw new StoreConfigurationError(`${label} urls need the packages ${packages.join(' and ')}: npm install ${packages.join(' ')}`, { cause: error });
  }
}
