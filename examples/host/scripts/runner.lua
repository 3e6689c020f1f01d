-- The runner's AI: the shortest way, danger or not.
return {
  options = function(unit, world)
    return {}
  end,
}
