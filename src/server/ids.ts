/** Random ids live with the records that carry them (src/store/ids.ts); the server uses the same ones. */
export { idPattern, randomId } from '../store/ids.js';
