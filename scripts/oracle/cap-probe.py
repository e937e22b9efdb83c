#!/usr/bin/env python3
"""Where MuJoCo 3.15.0 caps a contact spring under the discrete integrator (refsafe on): a sphere
resting on a plane (solimp 0.3 0.95 0.01, so the impedance is about 0.303, far below dmax 0.95),
solref (tc, zeta) swept across the boundary. For each, prints efc_KBIP's stiffness and whether
it is the cap 1/(h^2*imp) or the time-constant stiffness 1/(dmax^2*tc^2*zeta^2), and which test
predicts it: the stiffnesses compared (flexlab's since adaa145, written since then as MuJoCo
3.15.0's disassembly writes it, imp*(h^2*K) > 1) or tc < h/(zeta*sqrt(imp)).

  .venv/bin/python scripts/oracle/cap-probe.py
"""
import math

import mujoco

XML = """<mujoco><option timestep="0.002" integrator="discrete"/><worldbody>
<geom type="plane" size="1 1 .1" solref="{tc} {zeta}" solimp="0.3 0.95 0.01"/>
<body pos="0 0 0.1"><freejoint/><geom type="sphere" size=".1" solref="{tc} {zeta}"
 solimp="0.3 0.95 0.01"/></body></worldbody></mujoco>"""

for tc, zeta in [(0.001, 1), (0.003, 1), (0.0023, 0.5), (0.002318, 0.5), (0.00232, 0.5),
                 (0.0035, 0.5)]:
    m = mujoco.MjModel.from_xml_string(XML.format(tc=tc, zeta=zeta))
    d = mujoco.MjData(m)
    d.qpos[2] = 0.0995
    mujoco.mj_forward(m, d)
    h, dmax = m.opt.timestep, 0.95
    k, _, imp, _ = d.efc_KBIP[0]
    k_tc, k_cap = 1 / (dmax**2 * tc**2 * zeta**2), 1 / (h * h * imp)
    got = "cap" if math.isclose(k, k_cap, rel_tol=1e-9) else "time constant"
    print(f"tc {tc:<8} zeta {zeta:<4} imp {imp:.5f}  K {k:12.1f} ({got}); "
          f"stiffness test says {'cap' if k_tc > k_cap else 'time constant'}, "
          f"tc test says {'cap' if tc < h / (zeta * math.sqrt(imp)) else 'time constant'}")
