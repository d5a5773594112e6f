/** Emulator routes for user-groups. */
import type { Route } from '../context.js';

export const routes: Route[] = [];
