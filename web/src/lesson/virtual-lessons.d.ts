/** The lessons compiled at build time by web/lessons-plugin.ts: lesson folder name → entry. */
declare module 'virtual:flexlab-lessons' {
  const lessons: Record<string, { hidden: boolean; compiled: string }>;
  export default lessons;
}
