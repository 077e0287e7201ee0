/** Style sheets imported for their side effect: esbuild bundles them into the dashboard's app.css. */
declare module '*.css';
