-- The scout's AI, as a mod would write it: keep well away from danger.
-- Edit this file while examples/host runs: the next tick uses the new version.
return {
  options = function(unit, world)
    return { influence = world.danger, influence_weight = 10 }
  end,
}
