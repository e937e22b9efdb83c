/**
 * The colour MuJoCo draws an object in (mjv's `setMaterial`): the material's `mat_rgba` when the
 * object has a material and its own rgba is the default grey (0.5 0.5 0.5 1), else its own.
 * `geom_rgba` and `flex_rgba` keep the object's own colour, as in MuJoCo's mjModel.
 *
 * @param own the object's rgba array (`geom_rgba`, `flex_rgba`), 4 per object
 * @param id the object's index
 * @param matid its material (`geom_matid`, `flex_matid`), or -1
 * @param mat `mat_rgba`, 4 per material
 */
export function drawnRgba(
  own: ArrayLike<number>,
  id: number,
  matid: number,
  mat: ArrayLike<number>,
): [number, number, number, number] {
  const o = 4 * id;
  const rgba: [number, number, number, number] = [own[o], own[o + 1], own[o + 2], own[o + 3]];
  // float32 values from the engine: 0.5 and 1 are exact there
  const isDefault = rgba[0] === 0.5 && rgba[1] === 0.5 && rgba[2] === 0.5 && rgba[3] === 1;
  if (matid >= 0 && 4 * matid + 3 < mat.length && isDefault) {
    const a = 4 * matid;
    return [mat[a], mat[a + 1], mat[a + 2], mat[a + 3]];
  }
  return rgba;
}
