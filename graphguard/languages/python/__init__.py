"""Python: parsing, module names, resolution and signatures (nothing imported here: a hook starts fast)."""
