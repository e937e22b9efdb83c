/** The lessons compiled at build time by web/lessons-plugin.ts: lesson folder name → entry. */
declare module 'virtual:flexlab-lessons' {
  const lessons: Record<string, { hidden: boolean; title: { zh?: string; en?: string }; compiled: string }>;
  export default lessons;
}
