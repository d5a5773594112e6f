/** Emulator routes for users. */
import type { Route } from '../context.js';

export const routes: Route[] = [];
