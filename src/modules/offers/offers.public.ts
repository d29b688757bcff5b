/** The front door of offers for other modules: the import reads its section here. */
export { offersSection } from './offers.import.js';
